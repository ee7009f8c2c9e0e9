// The pty host's log: lines on stderr, which the client points at $ROOST_HOME/pty.log.

export function log(msg: string): void {
  process.stderr.write(`${new Date().toISOString()} pty-host[${process.pid}] ${msg}\n`);
}
