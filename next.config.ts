import type { NextConfig } from "next";
import createNextIntlPlugin from "next-intl/plugin";

/**
 * Next.js configuration for StarArena.
 * - `authInterrupts` enables `forbidden()` so /admin answers a real 403 to fans.
 * - `serverExternalPackages` keeps the TCP Redis client and postgres.js out of the bundle.
 * - `NEXT_DIST_DIR` lets `npm test` build into its own folder, so tests never rebuild the
 *   `.next` a running `npm start` is serving from.
 * - next-intl's plugin points at the request configuration (lib/i18n/request.ts, ADR 0018).
 */
const nextConfig: NextConfig = {
  distDir: process.env.NEXT_DIST_DIR || ".next",
  reactStrictMode: true,
  poweredByHeader: false,
  experimental: { authInterrupts: true },
  serverExternalPackages: ["ioredis", "postgres"],
};

export default createNextIntlPlugin("./lib/i18n/request.ts")(nextConfig);
