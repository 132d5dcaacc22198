// The sandbox's end of `sandbox.allowedHosts` (src/sandbox/network-proxy.ts is the other): run
// inside bwrap, where `--unshare-net` leaves only a loopback interface, as
//   node proxy-bridge.mjs SOCKET PORT [WATCH_PID]
// it listens on 127.0.0.1:PORT and pipes each TCP connection to the Unix socket SOCKET, where
// Loom's proxy decides what may pass. HTTP_PROXY and HTTPS_PROXY name that port.
// Once listening it writes one line, `ready PORT` (the port really bound, so PORT may be 0), and
// then points its stdout and stderr at /dev/null: the shell that started it reads that line
// through a pipe and learns at once that the bridge listens, and no stream of the command stays
// held open by the bridge. Anything that stops the start is written on stdout instead, as one
// line, and the bridge exits 1.
// It exits when WATCH_PID (the shell that goes on to run the command; its parent's when none is
// given) is gone, checked every 100 ms. Under `bwrap --unshare-pid` the kernel ends it sooner:
// the sandbox's processes die with its first one.
// Plain JavaScript with Node's own modules only: it runs from the host's node binary, inside
// the sandbox, outside any build or bundle.
import { closeSync, openSync, writeSync } from 'node:fs';
import { connect, createServer } from 'node:net';

const [socketPath, portText, watchText] = process.argv.slice(2);

function fail(message) {
  writeSync(1, `loom proxy bridge: ${message}\n`);
  process.exit(1);
}

if (!socketPath || portText === undefined || !/^\d{1,5}$/.test(portText)) {
  fail('usage: node proxy-bridge.mjs SOCKET PORT [WATCH_PID]');
}
const watched = watchText === undefined ? process.ppid : Number(watchText);
if (!Number.isInteger(watched) || watched <= 0)
  fail(`WATCH_PID "${watchText}" is not a process id`);

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

const server = createServer((client) => {
  const upstream = connect(socketPath);
  client.on('error', () => upstream.destroy());
  upstream.on('error', () => client.destroy());
  client.on('close', () => upstream.destroy());
  upstream.on('close', () => client.destroy());
  client.pipe(upstream);
  upstream.pipe(client);
});

server.on('error', (error) => fail(`cannot listen on 127.0.0.1:${portText}: ${error.message}`));

server.listen(Number(portText), '127.0.0.1', () => {
  const address = server.address();
  writeSync(1, `ready ${typeof address === 'object' && address ? address.port : portText}\n`);
  // Closing a descriptor and opening one at once takes that same number (the lowest free), so
  // 1 and 2 now name /dev/null: later writes go nowhere and no socket can take those numbers.
  for (const fd of [1, 2]) {
    closeSync(fd);
    const opened = openSync('/dev/null', 'w');
    if (opened !== fd) closeSync(opened);
  }
  server.on('error', () => {});
  if (watchText === undefined && process.ppid !== watched) process.exit(0);
  setInterval(() => {
    if (watchText === undefined ? process.ppid !== watched : !alive(watched)) process.exit(0);
  }, 100);
});
