// Loaded into Prism's process by scripts/mock.mjs (`node --require`): Prism ends when the mock
// that started it is gone, however it went (a SIGKILL, a crash), so no Prism is left orphaned on
// its private port. The mock opens an IPC channel to Prism for this alone; the channel closes when
// the mock's process ends.
if (typeof process.send === 'function') {
  process.on('disconnect', () => process.exit(1));
}
