CREATE SCHEMA "dev_mailbox";
--> statement-breakpoint
CREATE TABLE "emails" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"to_address" text NOT NULL,
	"payload" jsonb NOT NULL,
	"dedupe_key" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"available_at" timestamp with time zone DEFAULT now() NOT NULL,
	"sent_at" timestamp with time zone,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	CONSTRAINT "emails_dedupe_key_unique" UNIQUE("dedupe_key")
);
--> statement-breakpoint
CREATE TABLE "dev_mailbox"."messages" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"recipients" text[] NOT NULL,
	"from_address" text NOT NULL,
	"subject" text NOT NULL,
	"text" text NOT NULL,
	"html" text,
	"attachments" jsonb NOT NULL,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "tickets" ADD COLUMN "short_code" text;--> statement-breakpoint
-- Tickets issued before short codes existed get one (hex digits are Crockford base-32 digits too).
UPDATE "tickets" SET "short_code" = upper(substr(md5(random()::text || "id"), 1, 10)) WHERE "short_code" IS NULL;--> statement-breakpoint
CREATE INDEX "emails_unsent_idx" ON "emails" USING btree ("available_at") WHERE "emails"."sent_at" is null;--> statement-breakpoint
CREATE INDEX "dev_messages_received_idx" ON "dev_mailbox"."messages" USING btree ("received_at");--> statement-breakpoint
ALTER TABLE "tickets" ADD CONSTRAINT "tickets_short_code_unique" UNIQUE("short_code");