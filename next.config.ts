import type { NextConfig } from "next";

/**
 * Next.js configuration for StarArena.
 * - `authInterrupts` enables `forbidden()` so /admin answers a real 403 to fans.
 * - `serverExternalPackages` keeps the TCP Redis client and postgres.js out of the bundle.
 * - `NEXT_DIST_DIR` lets `npm test` build into its own folder, so tests never rebuild the
 *   `.next` a running `npm start` is serving from.
 */
const nextConfig: NextConfig = {
  distDir: process.env.NEXT_DIST_DIR || ".next",
  reactStrictMode: true,
  poweredByHeader: false,
  experimental: { authInterrupts: true },
  serverExternalPackages: ["ioredis", "postgres"],
};

export default nextConfig;
