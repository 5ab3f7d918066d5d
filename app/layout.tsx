import type { Metadata } from "next";
import Link from "next/link";
import type { ReactNode } from "react";
import { UserMenu } from "@/components/user-menu";
import { Providers } from "./providers";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "StarArena", template: "%s · StarArena" },
  description: "Fair, fast on-sales for shows where demand dwarfs supply.",
  // Static files from public/: the icon, the web app manifest (and robots.txt, served as is).
  icons: { icon: "/favicon.svg" },
  manifest: "/manifest.webmanifest",
};

/** The shell. It reads no cookies, so pages below it stay cacheable; the user menu loads client-side. */
export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body className="min-h-screen antialiased">
        <Providers>
          <header className="border-b border-white/10 bg-black/30">
            <nav className="mx-auto flex max-w-6xl items-center justify-between gap-3 px-4 py-3">
              <Link href="/" className="shrink-0 text-lg font-bold tracking-tight">
                ★ StarArena
              </Link>
              <UserMenu />
            </nav>
          </header>
          <main className="mx-auto max-w-6xl px-4 py-8">{children}</main>
        </Providers>
      </body>
    </html>
  );
}
