/**
 * `npm run bench:seatmap`: how smoothly the 20,000-seat arena's map pans, in Debian's Chromium
 * (software rendering: --disable-gpu), on a desktop (1280 px) and a phone (390×844) viewport.
 * For each, the map is panned by mouse drags for a few seconds at two zooms (2.2×, where the
 * sections are large, and the zoom where seats can be picked, after a click on a section), and
 * the page reports:
 *  - the canvas's draw time per frame (the `seat-map draw` performance measure,
 *    components/seat-map.tsx), and
 *  - the interval between animation frames while panning, against the same page's idle
 *    frame interval measured first (the reference: 16.7 ms at 60 Hz when nothing is late).
 * Medians and 95th percentiles over `--rounds` rounds (default 3) of `--seconds` each (3).
 *
 * Runs its own production server (scripts/lib/bench-server.ts) on port 3220.
 */
import { existsSync } from "node:fs";
import { chromium, type Page } from "@playwright/test";
import { loadProjectEnv } from "./load-env";
import { startBenchServer } from "./lib/bench-server";

loadProjectEnv();
const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const seconds = arg("seconds", 3);
const rounds = arg("rounds", 3);
const log = (s: string) => console.log(`[bench:seatmap] ${s}`);
const executablePath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(q * s.length))]! : NaN;
};

/** Frame intervals (ms) for `ms` of the page's animation frames, while `during` runs. */
async function frames(page: Page, ms: number, during: () => Promise<void>): Promise<number[]> {
  // A string, not a function: tsx's transform would add helpers (__name) the page does not have.
  await page.evaluate(`(() => {
    window.__frames = [];
    let last = performance.now();
    const end = last + ${ms};
    const tick = (t) => {
      window.__frames.push(t - last);
      last = t;
      if (t < end) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  })()`);
  await during();
  await page.waitForTimeout(ms + 100);
  return (await page.evaluate("window.__frames.slice(1)")) as number[];
}

/** Mouse drags back and forth across the map for `ms`. */
async function pan(page: Page, ms: number) {
  const box = (await page.getByTestId("seat-map").boundingBox())!;
  const cx = box.x + box.width / 2;
  const cy = box.y + box.height / 2;
  const end = Date.now() + ms;
  for (let dir = 1; Date.now() < end; dir = -dir) {
    await page.mouse.move(cx - dir * box.width * 0.25, cy);
    await page.mouse.down();
    await page.mouse.move(cx + dir * box.width * 0.25, cy + dir * 20, { steps: 30 });
    await page.mouse.up();
  }
}

const drawTimes = async (page: Page) =>
  (await page.evaluate(`(() => {
    const d = performance.getEntriesByName("seat-map draw").map((e) => e.duration);
    performance.clearMeasures("seat-map draw");
    return d;
  })()`)) as number[];

const server = await startBenchServer(3220, log);
const browser = await chromium.launch({ executablePath: existsSync(executablePath) ? executablePath : undefined, args: ["--no-sandbox", "--disable-gpu"] });
const rows: string[] = [];
try {
  for (const device of [
    { name: "desktop 1280×1000", viewport: { width: 1280, height: 1000 } },
    { name: "phone 390×844", viewport: { width: 390, height: 844 } },
  ]) {
    const page = await browser.newPage({ viewport: device.viewport });
    await page.goto(`${server.url}/events/nova-lights-world-tour`);
    // Where section 212's first seat is (plan units): a click there zooms to the seats.
    const eventId = /evt_[0-9a-z]+/.exec(await page.content())![0];
    const geometry = (await (await fetch(`${server.url}/api/events/${eventId}/seat-map`)).json()) as { sections: { code: string }[]; seats: { x: number[]; y: number[]; section: number[] } };
    const at = geometry.seats.section.indexOf(geometry.sections.findIndex((s) => s.code === "212"));
    const seat = [geometry.seats.x[at]!, geometry.seats.y[at]!] as const;
    const map = page.getByTestId("seat-map");
    await map.waitFor();
    await map.scrollIntoViewIfNeeded();
    await page.waitForTimeout(500);
    const results: Record<string, { draw: number[]; frame: number[] }> = { idle: { draw: [], frame: [] }, "2.2×": { draw: [], frame: [] }, "seat zoom": { draw: [], frame: [] } };
    for (let r = 0; r < rounds; r++) {
      log(`${device.name}: round ${r + 1}/${rounds}`);
      await page.getByRole("button", { name: "Show the whole venue" }).click();
      await page.waitForTimeout(400);
      await drawTimes(page);
      results.idle!.frame.push(...(await frames(page, seconds * 1000, async () => {})));
      await page.getByRole("button", { name: "Zoom in" }).click();
      await page.getByRole("button", { name: "Zoom in" }).click();
      await page.waitForTimeout(500);
      await drawTimes(page);
      results["2.2×"]!.frame.push(...(await frames(page, seconds * 1000, () => pan(page, seconds * 1000))));
      results["2.2×"]!.draw.push(...(await drawTimes(page)));
      // A click on a section zooms to the seats.
      await page.getByRole("button", { name: "Show the whole venue" }).click();
      await page.waitForTimeout(400);
      const box = (await map.boundingBox())!;
      const base = Number(await map.getAttribute("data-base"));
      await page.mouse.click(box.x + base * seat[0], box.y + base * seat[1]);
      await page.waitForFunction(`document.querySelector("[data-testid=seat-map]")?.getAttribute("data-pickable") === "true"`);
      await page.waitForTimeout(500);
      await drawTimes(page);
      results["seat zoom"]!.frame.push(...(await frames(page, seconds * 1000, () => pan(page, seconds * 1000))));
      results["seat zoom"]!.draw.push(...(await drawTimes(page)));
    }
    const idle = quantile(results.idle!.frame, 0.5);
    for (const [zoom, { draw, frame }] of Object.entries(results)) {
      const f50 = quantile(frame, 0.5);
      const line =
        zoom === "idle"
          ? `| ${device.name} | idle (reference) | – | – | ${f50.toFixed(1)} | ${quantile(frame, 0.95).toFixed(1)} | 1.00 | ${frame.length} |`
          : `| ${device.name} | panning at ${zoom} | ${quantile(draw, 0.5).toFixed(2)} | ${quantile(draw, 0.95).toFixed(2)} | ${f50.toFixed(1)} | ${quantile(frame, 0.95).toFixed(1)} | ${(f50 / idle).toFixed(2)} | ${frame.length} |`;
      rows.push(line);
    }
    await page.close();
  }
  console.log("\n| viewport | what | draw p50 (ms) | draw p95 (ms) | frame p50 (ms) | frame p95 (ms) | frame p50 / idle | frames |");
  console.log("|---|---|---|---|---|---|---|---|");
  for (const r of rows) console.log(r);
} finally {
  await browser.close();
  await server.stop();
}
