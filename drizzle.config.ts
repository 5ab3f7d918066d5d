import { defineConfig } from "drizzle-kit";

/** drizzle-kit: `npm run db:generate` writes SQL migrations to db/migrations (committed); `npm run db:migrate` applies them. */
export default defineConfig({
  dialect: "postgresql",
  schema: ["./db/schema.ts", "./db/sandbox-psp-schema.ts", "./db/dev-mailbox-schema.ts"],
  out: "./db/migrations",
  dbCredentials: { url: process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/stararena" },
  strict: true,
  verbose: false,
});
