/** The signed-in user as the app sees it (from the session cookie cache or better-auth). */
export interface SessionUser {
  id: string;
  email: string;
  name: string;
  role: "fan" | "organizer";
}
