CREATE SCHEMA "sandbox_psp";
--> statement-breakpoint
CREATE TABLE "sandbox_psp"."checkouts" (
	"id" text PRIMARY KEY NOT NULL,
	"order_id" text NOT NULL,
	"amount_minor" integer NOT NULL,
	"currency" text NOT NULL,
	"description" text NOT NULL,
	"return_url" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"status" text DEFAULT 'open' NOT NULL,
	"payment_id" text,
	"captured_at" timestamp with time zone,
	"refunded_at" timestamp with time zone,
	"refund_id" text,
	"refund_idempotency_key" text,
	"idempotency_key" text NOT NULL,
	"faults" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "checkouts_payment_id_unique" UNIQUE("payment_id"),
	CONSTRAINT "checkouts_idempotency_key_unique" UNIQUE("idempotency_key"),
	CONSTRAINT "checkouts_amount_ck" CHECK ("sandbox_psp"."checkouts"."amount_minor" > 0),
	CONSTRAINT "checkouts_status_ck" CHECK ("sandbox_psp"."checkouts"."status" in ('open', 'captured', 'declined', 'expired', 'cancelled', 'refunded'))
);
--> statement-breakpoint
CREATE TABLE "sandbox_psp"."settings" (
	"id" integer PRIMARY KEY DEFAULT 1 NOT NULL,
	"faults" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "settings_single_row_ck" CHECK ("sandbox_psp"."settings"."id" = 1)
);
--> statement-breakpoint
CREATE TABLE "sandbox_psp"."webhook_deliveries" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"checkout_id" text NOT NULL,
	"event_id" text NOT NULL,
	"type" text NOT NULL,
	"payload" jsonb NOT NULL,
	"deliver_at" timestamp with time zone NOT NULL,
	"delivered_at" timestamp with time zone,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_status" integer,
	"last_error" text,
	"dropped" boolean DEFAULT false NOT NULL,
	"fail_first_attempts" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "sandbox_psp"."webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_checkout_id_checkouts_id_fk" FOREIGN KEY ("checkout_id") REFERENCES "sandbox_psp"."checkouts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "checkouts_order_idx" ON "sandbox_psp"."checkouts" USING btree ("order_id");--> statement-breakpoint
CREATE INDEX "checkouts_open_expiry_idx" ON "sandbox_psp"."checkouts" USING btree ("expires_at") WHERE "sandbox_psp"."checkouts"."status" = 'open';--> statement-breakpoint
CREATE INDEX "webhook_deliveries_due_idx" ON "sandbox_psp"."webhook_deliveries" USING btree ("deliver_at") WHERE "sandbox_psp"."webhook_deliveries"."delivered_at" is null and "sandbox_psp"."webhook_deliveries"."dropped" = false;--> statement-breakpoint
CREATE INDEX "webhook_deliveries_checkout_idx" ON "sandbox_psp"."webhook_deliveries" USING btree ("checkout_id","id");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_event_idx" ON "sandbox_psp"."webhook_deliveries" USING btree ("event_id");