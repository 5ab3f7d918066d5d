import Link from "next/link";

export default function NotFound() {
  return (
    <div className="space-y-3">
      <h1 className="text-3xl font-bold">Not found</h1>
      <p className="text-white/70">There is no show or page at this address.</p>
      <Link href="/" className="underline">
        See all shows
      </Link>
    </div>
  );
}
