import './tracing';
import 'reflect-metadata';
import { resolveCoordinationBackend } from '@app/coordination';
import { loadConfigOrExit, runHttpApp } from '@app/platform';
import { AppModule } from './app.module';
import { DispatcherConfig } from './config/dispatcher.config';

const config = loadConfigOrExit(DispatcherConfig, 'bot-dispatcher');
resolveCoordinationBackend(config)
  .then(() => runHttpApp(AppModule.forRoot(config), config))
  .catch((error: Error) => {
    console.error(`bot-dispatcher failed to start: ${error.message}`);
    process.exit(1);
  });
