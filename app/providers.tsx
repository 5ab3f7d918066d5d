"use client";
/** Client-side providers: one react-query client per browser tab. */
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { useState, type ReactNode } from "react";

export function Providers({ children }: { children: ReactNode }) {
  const [client] = useState(() => new QueryClient({ defaultOptions: { queries: { staleTime: 1_000, retry: 2 } } }));
  return <QueryClientProvider client={client}>{children}</QueryClientProvider>;
}
