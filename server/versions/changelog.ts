import { listVersions } from './list';

/**
 * The changelog as Markdown, made from the registry (the same entries `GET /partner/versions` lists), so
 * the one /docs shows cannot drift from the versions the code speaks: every version, newest first, each
 * change with what changed, what to do to upgrade past it, and the shapes before and after it.
 * `headingLevel` is the level of each version's heading (the guide it sits in decides).
 */
export function changelogMarkdown(headingLevel = 3): string {
  const hashes = '#'.repeat(headingLevel);
  return listVersions()
    .data.map((version) => {
      const lines = [`${hashes} ${version.id}${version.latest ? ' (latest)' : ''}`, ''];
      if (version.changes.length === 0) lines.push(version.description, '');
      for (const change of version.changes) {
        lines.push(`- \`${change.name}\`: **${change.title}** ${change.description}`, '', `  *Migrating*: ${change.migration}`, '');
        for (const example of change.examples) {
          // Raw HTML (a collapsed block): Markdown's backticks do not work inside it.
          const what = example.resource ? `<code>${example.resource}</code>` : `<code>${example.request}</code> request body`;
          lines.push(
            `  <details><summary>Example: ${what}, before and after</summary>`,
            '',
            '  ```json',
            `  ${JSON.stringify(example.before)}`,
            `  ${JSON.stringify(example.after)}`,
            '  ```',
            '',
            '  </details>',
            '',
          );
        }
      }
      return lines.join('\n');
    })
    .join('\n');
}
