/**
 * GET one attachment of a message in the development mailbox (the ticket QR codes of a
 * confirmation, …) with its own content type, so the mailbox's attachment links open it.
 * Dev-only like the mailbox page: without DEV_MAILBOX (loopback only, lib/env.ts) there is
 * nothing here. Images, PDFs and plain text open in the browser; anything else downloads, and
 * answers other than PDFs are sandboxed, so a received attachment cannot run as this site.
 */
import { z } from "zod";
import { db } from "@/lib/db";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { PRIVATE_NO_STORE } from "@/lib/http/cache";
import { route } from "@/lib/http/route";
import { devAttachment } from "@/lib/mail/dev-mailbox";

const nothingHere = () => new AppError("not_found", "not_found", "There is nothing at this address.");
/** Types a browser shows without running anything of the sender's. */
const SHOWN_INLINE = /^(image\/(png|jpeg|gif|webp)|application\/pdf|text\/plain)$/;

export const GET = route({ params: z.object({ id: z.coerce.number().int().positive(), index: z.coerce.number().int().min(0).max(1_000) }) }, async ({ params }) => {
  if (!env().DEV_MAILBOX) throw nothingHere();
  const file = await devAttachment(db(), params.id, params.index);
  if (!file) throw nothingHere();
  const inline = SHOWN_INLINE.test(file.contentType);
  const name = file.filename.replace(/[^\w.-]+/g, "_") || `attachment-${params.index}`;
  return new Response(new Uint8Array(file.content), {
    headers: {
      "Content-Type": inline ? file.contentType : "application/octet-stream",
      "Content-Disposition": `${inline ? "inline" : "attachment"}; filename="${name}"`,
      // A PDF is drawn by the browser's own viewer, which a sandboxed answer would block.
      ...(file.contentType === "application/pdf" ? {} : { "Content-Security-Policy": "sandbox; default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'" }),
      "X-Content-Type-Options": "nosniff",
      "Cache-Control": PRIVATE_NO_STORE,
    },
  });
});
