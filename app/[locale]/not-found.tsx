import { NotFoundBody } from "@/components/not-found-body";

/** A fan page that does not exist (or a show nobody publishes: proxy.ts), in the fan's language. */
export default function NotFound() {
  return <NotFoundBody />;
}
