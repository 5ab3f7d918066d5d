"use client";
/**
 * A ticket's QR code, drawn in the browser from its code (lib/tickets/qr.ts), so the
 * server never spends CPU on QR codes, however often a fan's order page polls.
 */
import { useTranslations } from "next-intl";
import { useEffect, useState } from "react";
import { ticketQrSvg } from "@/lib/tickets/qr";

export function TicketQr({ code, className }: { code: string; className?: string }) {
  const t = useTranslations("Tickets");
  const [svg, setSvg] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    ticketQrSvg(code).then((s) => live && setSvg(s), () => live && setSvg(null));
    return () => {
      live = false;
    };
  }, [code]);
  return svg ? (
    <div className={className} role="img" aria-label={t("qr")} dangerouslySetInnerHTML={{ __html: svg }} />
  ) : (
    <div className={`${className ?? ""} aspect-square animate-pulse rounded bg-black/10`} aria-label={t("drawing")} />
  );
}
