import { ForgotPasswordForm } from "@/components/password-reset-form";

export const metadata = { title: "Reset your password" };

export default function ForgotPasswordPage() {
  return <ForgotPasswordForm />;
}
