/**
 * The framework floor: one NestJS route on the apps' own HTTP platform (the express instance of
 * `httpAdapter()` with `configureHttpApp`'s settings, Nest's JSON body parser) that answers the verify
 * baseline's body without doing anything: no credential, no limit, no statement, no log line. It is
 * what any route of the services costs before its first line of work, so its ratio to the verify
 * baseline bounds the ratio any Nest route can reach on the machine.
 */
import 'reflect-metadata';
import { Body, Controller, Get, HttpCode, Module, Post } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { configureHttpApp, httpAdapter } from '@app/platform';

const ANSWER = { voucher: { id: 'floor', status: 'available', valid_from: 0, valid_to: 0 }, redeemable: true };

@Controller()
class FloorController {
  @Get('ready')
  ready() {
    return { ready: true };
  }

  @Post('verify')
  @HttpCode(200)
  verify(@Body() body: { credential?: { type?: string } }) {
    return { success: true, code: 200, message: 'ok', data: { ...ANSWER, type: body?.credential?.type } };
  }
}

@Module({ controllers: [FloorController] })
class FloorModule {}

async function main(): Promise<void> {
  const app = await NestFactory.create(FloorModule, httpAdapter(), { logger: false });
  configureHttpApp(app);
  await app.listen(Number(process.env.PORT), '127.0.0.1');
}

void main();
