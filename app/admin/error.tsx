"use client";
/** The organizer pages' error boundary: the same retrying "trouble" page as the fan pages. */
export { default } from "../[locale]/error";
