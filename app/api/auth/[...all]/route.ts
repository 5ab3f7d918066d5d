/** better-auth's HTTP endpoints (sign-in, sign-up, sign-out, session). */
import { toNextJsHandler } from "better-auth/next-js";
import { auth } from "@/lib/auth";

export const { GET, POST } = toNextJsHandler((request: Request) => auth().handler(request));
