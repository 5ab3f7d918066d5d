"use client";
/** better-auth's React client for the browser (same origin as the app). */
import { createAuthClient } from "better-auth/react";

export const authClient = createAuthClient();
