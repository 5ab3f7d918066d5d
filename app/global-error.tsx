"use client";
/**
 * The last resort, when even the root layout cannot render: a plain page (it replaces the
 * layout, so no styles of ours) that says what happened and offers to try again.
 */
export default function GlobalError({ retry }: { error: Error & { digest?: string }; retry: () => void }) {
  return (
    <html lang="en">
      <body style={{ fontFamily: "system-ui, sans-serif", background: "#0b0b14", color: "#fff", padding: "2rem", maxWidth: "40rem", margin: "auto" }}>
        <h1>We&apos;re having trouble on our side</h1>
        <p>StarArena could not load this page just now. Nothing is lost: your place in the queue, your seats on hold and your orders are kept.</p>
        <button onClick={() => retry()} style={{ padding: "0.5rem 1.25rem", fontWeight: 600 }}>
          Try again
        </button>
      </body>
    </html>
  );
}
