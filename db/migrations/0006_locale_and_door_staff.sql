ALTER TYPE "public"."user_role" ADD VALUE 'door_staff';--> statement-breakpoint
ALTER TABLE "user" ADD COLUMN "locale" text;--> statement-breakpoint
ALTER TABLE "user" ADD COLUMN "staff_of" text;--> statement-breakpoint
ALTER TABLE "user" ADD CONSTRAINT "user_staff_of_user_id_fk" FOREIGN KEY ("staff_of") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;