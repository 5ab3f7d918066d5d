/**
 * The organizer's live controls: what queueControlsFrom accepts and refuses (pure), and the
 * route that posts them (app/api/admin/events/:id/queue) against the real Postgres and Redis —
 * a refusal in the organizer's language with its facts, English as before, nothing applied;
 * accepted controls applied to both stores.
 */
import { eq } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { POST as queueRoute } from "@/app/api/admin/events/[eventId]/queue/route";
import { events } from "@/db/schema";
import { auth } from "@/lib/auth";
import { closeDb, db } from "@/lib/db";
import { env } from "@/lib/env";
import { toErrorBody } from "@/lib/errors";
import { closeRedis, redis } from "@/lib/redis";
import { makeStudioShow, makeUser } from "@/lib/testing/fixtures";
import { queueControlsFrom } from "@/lib/waiting-room/config";
import { queueKeys } from "@/lib/waiting-room/keys";

afterAll(async () => {
  await closeDb();
  await closeRedis();
});

/** The refusal `queueControlsFrom(body)` throws, as a Chinese and an English reader get it. */
function refusal(body: unknown): { code: string; field?: string; en: string; zh: string } {
  try {
    queueControlsFrom(body);
  } catch (e) {
    const zh = toErrorBody(e, "req", "zh-CN");
    return { code: zh.code, ...(zh.field ? { field: zh.field } : {}), en: toErrorBody(e, "req", "en").error, zh: zh.error };
  }
  throw new Error(`accepted ${JSON.stringify(body)}`);
}

describe("queueControlsFrom", () => {
  it("accepts any of the three controls", () => {
    expect(queueControlsFrom({ paused: true })).toEqual({ paused: true });
    expect(queueControlsFrom({ ratePerMinute: 240, activeCap: 1_000_000 })).toEqual({ ratePerMinute: 240, activeCap: 1_000_000 });
  });

  it("refuses each kind of bad value with its own code and facts, in both languages", () => {
    expect(refusal({ ratePerMinute: 1.5 })).toEqual({ code: "queue_not_whole", field: "ratePerMinute", en: "The rate must be a whole number of fans per minute", zh: "放行速率（人/分钟）必须是整数。" });
    expect(refusal({ activeCap: "12" })).toEqual({ code: "queue_not_whole", field: "activeCap", en: "The cap must be a whole number", zh: "同时购票上限必须是整数。" });
    expect(refusal({ ratePerMinute: 0 })).toEqual({ code: "queue_below_min", field: "ratePerMinute", en: "The rate must be at least 1 fan per minute", zh: "放行速率不能低于每分钟 1 人。" });
    expect(refusal({ activeCap: -3 })).toEqual({ code: "queue_below_min", field: "activeCap", en: "The cap must be at least 1", zh: "同时购票上限不能小于 1。" });
    expect(refusal({ activeCap: 1_000_001 })).toEqual({ code: "queue_above_max", field: "activeCap", en: "The cap must be at most 1,000,000", zh: "同时购票上限不能大于 1,000,000。" });
    expect(refusal({ paused: "yes" })).toEqual({ code: "queue_paused_not_boolean", field: "paused", en: "paused must be true or false", zh: "paused（暂停放行）只能是 true 或 false。" });
    expect(refusal({ rate: 5 })).toEqual({ code: "queue_unknown_control", en: "Unknown control: rate. Send paused, ratePerMinute or activeCap.", zh: "无法识别的控制项：rate。可用的控制项为 paused、ratePerMinute 和 activeCap。" });
    for (const nothing of [{}, [], null, "pause"]) expect(refusal(nothing).code).toBe("queue_no_controls");
    expect(refusal({}).en).toBe("Send at least one of paused, ratePerMinute, activeCap");
  });
});

describe("POST /api/admin/events/:id/queue", () => {
  it("refuses a rate above the maximum in the organizer's language, changing nothing; applies good controls", async () => {
    const organizer = await makeUser(db(), "organizer");
    const { eventId } = await makeStudioShow(db(), { organizerId: organizer.id, admissionRatePerMinute: 600, activeCap: 2_000 });
    const { headers } = await auth().api.signInEmail({ body: { email: organizer.email, password: "password-123" }, returnHeaders: true });
    const session = headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    const post = (body: unknown, language: "en" | "zh-CN") =>
      queueRoute(
        new Request(`${env().APP_URL}/api/admin/events/${eventId}/queue`, {
          method: "POST",
          headers: { cookie: `${session}; NEXT_LOCALE=${language}`, "content-type": "application/json" },
          body: JSON.stringify(body),
        }),
        { params: Promise.resolve({ eventId }) },
      );
    const stored = async () => db().query.events.findFirst({ where: eq(events.id, eventId), columns: { admissionRatePerMinute: true, activeCap: true } });

    const zh = await post({ ratePerMinute: 2_000_000 }, "zh-CN");
    expect(zh.status).toBe(400);
    expect(zh.headers.get("content-language")).toBe("zh-CN");
    expect(await zh.json()).toEqual({ error: "放行速率不能超过每分钟 1,000,000 人。", code: "queue_above_max", field: "ratePerMinute" });
    const english = await post({ ratePerMinute: 2_000_000 }, "en");
    expect(english.status).toBe(400);
    expect(await english.json()).toEqual({ error: "The rate must be at most 1,000,000 fans per minute", code: "queue_above_max", field: "ratePerMinute" });
    expect(await stored()).toEqual({ admissionRatePerMinute: 600, activeCap: 2_000 });

    const ok = await post({ ratePerMinute: 240, activeCap: 50, paused: true }, "zh-CN");
    expect(ok.status).toBe(200);
    expect(await stored()).toEqual({ admissionRatePerMinute: 240, activeCap: 50 });
    const cfg = (await redis().hgetall(queueKeys(eventId)[0]!)) ?? {};
    expect([cfg.rate, cfg.cap, cfg.paused].map(Number)).toEqual([240, 50, 1]);
  });
});
