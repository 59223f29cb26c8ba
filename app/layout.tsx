import type { ReactNode } from 'react';

export const metadata = { title: 'Partner Delivery Platform' };

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body style={{ fontFamily: 'system-ui, sans-serif', margin: '2rem', maxWidth: 720 }}>{children}</body>
    </html>
  );
}
