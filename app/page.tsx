export default function Home() {
  return (
    <main>
      <h1>Partner Delivery Platform</h1>
      <p>
        The partner API lives under <code>/partner</code>; its reference is <a href="/partner/openapi.json">/partner/openapi.json</a>.
      </p>
      <p>
        Operators: <a href="/login">sign in</a>. The operator API is GraphQL at <code>/api/graphql</code> (README, “Operator API”).
      </p>
    </main>
  );
}
