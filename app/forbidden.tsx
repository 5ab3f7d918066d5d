import Link from "next/link";

/** Shown with HTTP 403 when a signed-in user lacks the role for a page (e.g. a fan opening /admin). */
export default function Forbidden() {
  return (
    <div className="space-y-3">
      <h1 className="text-3xl font-bold">403 — Organizers only</h1>
      <p className="text-white/70">This part of StarArena is for show organizers. Your account is a fan account.</p>
      <Link href="/" className="underline">
        Back to the shows
      </Link>
    </div>
  );
}
