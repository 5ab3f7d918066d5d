import { notFound } from "next/navigation";

/** Every /admin address no organizer page matches: the area's translated not-found page (app/admin/not-found.tsx). */
export default function AdminCatchAll(): never {
  notFound();
}
