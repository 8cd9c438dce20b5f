// The gatehouse command: the server (`gatehouse start`, `admin reset`, `backend copy`) and the client
// (`gatehouse login`, `ssh`, `db`, `kube`, …); src/cli/program.ts dispatches.
// First, before any native addon loads: refuse a Node.js release we do not support, in one line.
import './node-version.js';
import { runCli } from './cli/program.js';

runCli(process.argv.slice(2)).then(
  // The server's start returns once it has stopped, a client command once it is done (stdout and
  // stderr are synchronous on pipes and files); idle keep-alive sockets must not hold the process.
  (code) => process.exit(code),
  (e) => {
    process.stderr.write(`gatehouse: ${(e as Error).stack ?? String(e)}\n`);
    process.exit(1);
  },
);
