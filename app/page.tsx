export default function Home() {
  return (
    <main>
      <h1>Partner Delivery Platform</h1>
      <p>
        The partner API lives under <code>/partner</code>; its reference is <a href="/partner/openapi.json">/partner/openapi.json</a>.
      </p>
      <p>The operator console arrives in a later release.</p>
    </main>
  );
}
