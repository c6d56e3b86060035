// Starts the three built apps side by side; Ctrl-C (SIGINT) or SIGTERM stops all of them gracefully.
import concurrently from 'concurrently';

const apps = ['voucher-api', 'bot-api', 'bot-dispatcher'];
const { result } = concurrently(
  apps.map((name) => ({ name, command: `node dist/apps/${name}/apps/${name}/src/main.js` })),
  { prefix: 'name', killOthersOn: ['failure'], killSignal: 'SIGTERM', handleInput: false },
);

result.then(
  () => process.exit(0),
  (events) =>
    process.exit(events.some((e) => e.exitCode !== 0 && e.exitCode !== 'SIGTERM' && e.exitCode !== 'SIGINT') ? 1 : 0),
);
