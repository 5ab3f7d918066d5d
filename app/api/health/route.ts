/** GET /api/health: 200 when Postgres and Redis answer, 503 (which one failed, in words, with Retry-After) otherwise — within about a second either way. */
import { NextResponse } from "next/server";
import { checkHealth } from "@/lib/health";

export const dynamic = "force-dynamic";

export async function GET() {
  const health = await checkHealth();
  return NextResponse.json(health, {
    status: health.ok ? 200 : 503,
    headers: { "Cache-Control": "no-store", ...(health.retryAfter ? { "Retry-After": String(health.retryAfter) } : {}) },
  });
}
