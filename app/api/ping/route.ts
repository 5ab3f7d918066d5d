/** GET /api/ping: the smallest dynamic route of the app — the framework's ceiling in benchmarks. */
export const dynamic = "force-dynamic";

export function GET() {
  return Response.json({ ok: true });
}
