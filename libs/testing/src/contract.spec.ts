import { Controller, Get, INestApplication, Param, Res } from '@nestjs/common';
import { ApiOkResponse, ApiProperty } from '@nestjs/swagger';
import { Test } from '@nestjs/testing';
import { ErrorCatalog } from '@app/envelope';
import { ApiDocsSpec } from '@app/platform';
import type { Response } from 'express';
import request from 'supertest';
import { ContractRecorder } from './contract';

class GreetingView {
  @ApiProperty()
  text!: string;
}

/** What the route sends for each shape, as is (no envelope in this app). */
const BODIES: Record<string, unknown> = {
  typed: { success: true, data: { text: 'hello' } },
  bare: { success: true },
  'null-data': { success: true, data: null },
  'empty-data': { success: true, data: {} },
  'extra-field': { success: true, data: { text: 'hello', secret: 'x' } },
};

@Controller('api/v1/greetings')
class GreetingsController {
  @Get(':shape')
  @ApiOkResponse({ type: GreetingView })
  greet(@Param('shape') shape: string, @Res() res: Response): void {
    res.status(200).json(BODIES[shape]);
  }
}

const SPEC: ApiDocsSpec = {
  title: 'contract check',
  description: 'a document with one typed operation',
  version: '1',
  envelope: 'bot',
  errors: ErrorCatalog.define('VALIDATION', { VALIDATION: { status: 400, message: 'Invalid parameter' } }),
  security: [],
};

describe('the contract check of responses against the OpenAPI document', () => {
  async function problemsOf(shape: string): Promise<string[]> {
    const recorder = new ContractRecorder(SPEC);
    const moduleRef = await Test.createTestingModule({ controllers: [GreetingsController] }).compile();
    const app: INestApplication = moduleRef.createNestApplication({ logger: false });
    recorder.install(app);
    await app.init();
    try {
      await request(app.getHttpServer()).get(`/api/v1/greetings/${shape}`).expect(200);
      return recorder.problems(app);
    } finally {
      await app.close();
    }
  }

  it('passes a success envelope whose data matches the documented type', async () => {
    expect(await problemsOf('typed')).toEqual([]);
  });

  it('refuses a bare success envelope, without data, where the document types data', async () => {
    expect(await problemsOf('bare')).toEqual([expect.stringMatching(/must have required property 'data'/)]);
  });

  it('refuses data that is null, lacks a documented required field or carries an undocumented one', async () => {
    expect(await problemsOf('null-data')).toEqual([expect.stringMatching(/\/data must be object/)]);
    expect(await problemsOf('empty-data')).toEqual([expect.stringMatching(/must have required property 'text'/)]);
    expect(await problemsOf('extra-field')).toEqual([
      expect.stringMatching(/must NOT have additional properties \(secret\)/),
    ]);
  });
});
