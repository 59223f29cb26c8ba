export default function Overview() {
  return (
    <>
      <h1>Overview</h1>
      <p>
        The partner API lives under <code>/partner</code>; its reference is <a href="/partner/openapi.json">/partner/openapi.json</a>. The
        operator API is GraphQL at <code>/api/graphql</code> (README, “Operator API”).
      </p>
    </>
  );
}
