// A node:test reporter that writes one number: how many tests were skipped or marked todo. CI
// (.ci/run) reads it, because the summary line differs by reporter and Node version ("# skipped N"
// in TAP, "ℹ skipped N" in spec, the default off a terminal since Node 22).
export default async function* countSkips(source) {
  let count = 0;
  for await (const event of source) {
    if (event.type === 'test:pass' || event.type === 'test:fail') {
      if (event.data.skip !== undefined || event.data.todo !== undefined) count++;
    }
  }
  yield `${count}\n`;
}
