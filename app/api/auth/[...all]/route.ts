/** better-auth's HTTP endpoints (sign-in, sign-up, sign-out, session), behind the shared input rule (lib/http/route.ts `libraryRoute`). */
import { toNextJsHandler } from "better-auth/next-js";
import { auth } from "@/lib/auth";
import { libraryRoute } from "@/lib/http/route";

const handlers = toNextJsHandler((request: Request) => auth().handler(request));
export const GET = libraryRoute(handlers.GET);
export const POST = libraryRoute(handlers.POST);
