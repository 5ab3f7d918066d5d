import { notFound } from "next/navigation";
import { LOCALES } from "@/lib/i18n/config";

/**
 * Every path no fan page matches, so it gets the localised not-found page (app/[locale]/not-found.tsx)
 * inside the locale's shell. `_stararena/unknown-show` is where proxy.ts sends a show slug nobody
 * publishes: prerendered per locale, it costs no render.
 */
export function generateStaticParams() {
  return LOCALES.map((locale) => ({ locale, rest: ["_stararena", "unknown-show"] }));
}

export default function CatchAll(): never {
  notFound();
}
