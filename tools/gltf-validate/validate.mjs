// Validates glTF/GLB files with the Khronos glTF validator; prints one JSON report line per file
// and exits 1 when any file has errors. Usage: node validate.mjs FILE...
import { readFile } from 'node:fs/promises';
import validator from 'gltf-validator';

let failed = false;
for (const file of process.argv.slice(2)) {
  const data = new Uint8Array(await readFile(file));
  const report = await validator.validateBytes(data, {
    uri: file,
    maxIssues: 100,
    externalResourceFunction: () => Promise.reject(new Error('external resources are not used')),
  });
  const { numErrors, numWarnings } = report.issues;
  const messages = report.issues.messages.map((m) => `${m.severity} ${m.code} ${m.pointer ?? ''}: ${m.message}`);
  console.log(JSON.stringify({ file, numErrors, numWarnings, messages }));
  if (numErrors > 0) failed = true;
}
process.exit(failed ? 1 : 0);
