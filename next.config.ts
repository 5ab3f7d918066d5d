import type { NextConfig } from "next";

/**
 * Next.js configuration for StarArena.
 * - `authInterrupts` enables `forbidden()` so /admin answers a real 403 to fans.
 * - `serverExternalPackages` keeps the TCP Redis client and postgres.js out of the bundle.
 */
const nextConfig: NextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  experimental: { authInterrupts: true },
  serverExternalPackages: ["ioredis", "postgres"],
};

export default nextConfig;
