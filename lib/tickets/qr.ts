/**
 * A ticket code as a QR code. Pure and browser-safe (only the `qrcode` library): tickets
 * are drawn in the fan's browser (components/ticket-qr.tsx), not on the server, because a
 * QR code of a ~290-character code costs milliseconds of CPU and the order page polls.
 */
import QRCode from "qrcode";

/**
 * Renders a ticket code as a QR code, error correction level M, one-module quiet zone.
 *
 * @param code the ticket code from `signTicketCode` (lib/tickets/codes.ts).
 * @returns a standalone SVG document string (`<svg …>…<path …/>…</svg>`), scalable,
 *   safe to inline in a page or an email.
 * @throws Error from `qrcode` if the code is too long to fit a QR code (far beyond any
 *   real ticket code).
 */
export async function ticketQrSvg(code: string): Promise<string> {
  return QRCode.toString(code, { type: "svg", errorCorrectionLevel: "M", margin: 1 });
}
