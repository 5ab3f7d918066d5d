import type { Metadata } from "next";
import type { ReactNode } from "react";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "StarArena", template: "%s · StarArena" },
  // Static files from public/: the icon, the web app manifest (and robots.txt, served as is).
  icons: { icon: "/favicon.svg" },
  manifest: "/manifest.webmanifest",
};

/**
 * The root passes through: each part of the site renders its own `<html>` through
 * components/site-shell.tsx — fan pages in app/[locale]/layout.tsx (their language is in
 * the path the proxy rewrote to, so they stay static per language), the organizer's in
 * app/admin/layout.tsx, the dev tools in app/dev/layout.tsx (docs/adr/0018).
 */
export default function RootLayout({ children }: { children: ReactNode }) {
  return children;
}
