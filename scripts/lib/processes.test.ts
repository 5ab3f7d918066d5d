import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * A supervisor (scripts/lib/processes.ts `supervise`) with two children that write their pids,
 * like `npm start`'s server and worker. Killing the supervisor with SIGKILL must not leave
 * either child behind; a dying child stops the other (or is restarted).
 */
function fixture(dir: string, restartWorker: boolean) {
  const child = path.join(dir, "child.mts");
  writeFileSync(
    child,
    `import { writeFileSync } from "node:fs";
import { exitWithParent } from ${JSON.stringify(path.resolve("scripts/lib/processes.ts"))};
writeFileSync(process.argv[2]!, String(process.pid) + "\\n", { flag: "a" });
exitWithParent(() => process.exit(0));
setInterval(() => {}, 1000);
`,
  );
  const sup = path.join(dir, "sup.mts");
  writeFileSync(
    sup,
    `import { supervise } from ${JSON.stringify(path.resolve("scripts/lib/processes.ts"))};
const tree = supervise([
  { name: "server", script: ${JSON.stringify(child)}, args: [${JSON.stringify(path.join(dir, "server.pid"))}] },
  { name: "worker", script: ${JSON.stringify(child)}, args: [${JSON.stringify(path.join(dir, "worker.pid"))}], restart: ${restartWorker} },
], { log: () => {} });
process.exit(await tree.done);
`,
  );
  return spawn(process.execPath, ["--import", "tsx", sup], { stdio: "ignore" });
}

const pids = (file: string) => {
  try {
    return readFileSync(file, "utf8").trim().split("\n").filter(Boolean).map(Number);
  } catch {
    return [];
  }
};

async function until(what: string, ok: () => boolean, ms = 15_000) {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(100)) if (ok()) return;
  throw new Error(`timed out waiting for ${what}`);
}

describe("one process tree", () => {
  it("SIGKILL of the supervisor leaves no server or worker behind", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "sa-tree-"));
    const sup = fixture(dir, false);
    await until("both children", () => pids(path.join(dir, "server.pid")).length === 1 && pids(path.join(dir, "worker.pid")).length === 1);
    const [server] = pids(path.join(dir, "server.pid"));
    const [worker] = pids(path.join(dir, "worker.pid"));
    sup.kill("SIGKILL");
    await until("the children to exit", () => !alive(server!) && !alive(worker!));
  });

  it("when the server dies, the worker is stopped and the supervisor exits non-zero", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "sa-tree-"));
    const sup = fixture(dir, true);
    const exited = new Promise<number | null>((r) => sup.on("exit", (code) => r(code)));
    await until("both children", () => pids(path.join(dir, "server.pid")).length === 1 && pids(path.join(dir, "worker.pid")).length === 1);
    const [server] = pids(path.join(dir, "server.pid"));
    const [worker] = pids(path.join(dir, "worker.pid"));
    process.kill(server!, "SIGKILL");
    expect(await exited).not.toBe(0);
    await until("the worker to exit", () => !alive(worker!));
  });

  it("when the worker dies, it is restarted beside the same server", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "sa-tree-"));
    const sup = fixture(dir, true);
    await until("both children", () => pids(path.join(dir, "worker.pid")).length === 1);
    const [first] = pids(path.join(dir, "worker.pid"));
    process.kill(first!, "SIGKILL");
    await until("a new worker", () => pids(path.join(dir, "worker.pid")).length === 2);
    const [, second] = pids(path.join(dir, "worker.pid"));
    expect(alive(second!)).toBe(true);
    sup.kill("SIGTERM");
    await until("the tree to stop", () => !alive(second!) && !alive(pids(path.join(dir, "server.pid"))[0]!));
  });
});
