import {
  CanActivate,
  Controller,
  Get,
  HttpCode,
  Injectable,
  INestApplication,
  Module,
  Param,
  Post,
  UseGuards,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ApiBearerAuth, ApiOkResponse, ApiProperty } from '@nestjs/swagger';
import { ErrorCatalog } from '@app/envelope';
import { API_SECURITY, ApiErrorResponses, ApiPublic, buildOpenApiDocument } from './openapi';

class TemplateView {
  @ApiProperty()
  id: string;
}

@Injectable()
class AllowGuard implements CanActivate {
  canActivate(): boolean {
    return true;
  }
}

@Injectable()
class AppTokenCheck implements CanActivate {
  canActivate(): boolean {
    return true;
  }
}

@Controller('api/v1/things')
class ThingsController {
  @Get(':id')
  @UseGuards(AllowGuard)
  @ApiBearerAuth(API_SECURITY.appToken)
  @ApiOkResponse({ type: TemplateView })
  @ApiErrorResponses(
    [404, 'NOT_FOUND'],
    [409, 'TEMPLATE_NOT_ACTIVE'],
    { status: 409, code: 'ISSUE_LIMIT_REACHED', when: 'stock is gone' },
    { status: 429, code: 'RATE_LIMITED', when: 'too many guesses' },
    { status: 429, code: 'RATE_LIMITED', when: 'endpoint limit' },
  )
  get(@Param('id') id: string): TemplateView {
    return { id };
  }

  @Post('verify')
  verify(): void {}

  @Post('declared-public')
  @UseGuards(AllowGuard)
  @ApiPublic()
  declaredPublic(): void {}

  @Post('forgot-docs')
  @UseGuards(AllowGuard)
  forgotDocs(): void {}

  @Post('runtime')
  @UseGuards(AppTokenCheck)
  @ApiBearerAuth()
  runtime(): void {}

  @Post('only-errors')
  @ApiErrorResponses([409, 'CONFLICT'])
  onlyErrors(): void {}

  @Post('only-errors-200')
  @HttpCode(200)
  @ApiErrorResponses([409, 'CONFLICT'])
  onlyErrors200(): void {}
}

@Module({ controllers: [ThingsController], providers: [AllowGuard, AppTokenCheck] })
class ThingsModule {}

const THINGS_CODES = {
  TEMPLATE_NOT_ACTIVE: { status: 409, message: 'not active' },
  ISSUE_LIMIT_REACHED: { status: 409, message: 'no stock' },
};
const THINGS_VOUCHER_ERRORS = ErrorCatalog.define('VALIDATION_FAILED', {
  VALIDATION_FAILED: { status: 400, message: 'invalid' },
  ...THINGS_CODES,
});
const THINGS_BOT_ERRORS = ErrorCatalog.define('VALIDATION', {
  VALIDATION: { status: 400, message: 'invalid' },
  ...THINGS_CODES,
});

async function documentFor(envelope: 'voucher' | 'bot') {
  const app: INestApplication = await NestFactory.create(ThingsModule, { preview: true, logger: false });
  try {
    return buildOpenApiDocument(app, {
      title: 'Things',
      description: 'test',
      version: '1',
      envelope,
      errors: envelope === 'voucher' ? THINGS_VOUCHER_ERRORS : THINGS_BOT_ERRORS,
      security: [API_SECURITY.accountJwt, API_SECURITY.appToken],
      credentialGuards: [{ guard: AppTokenCheck, scheme: API_SECURITY.appToken }],
    }) as any;
  } finally {
    await app.close();
  }
}

describe('buildOpenApiDocument', () => {
  it('renders codes that share a status as one response with an example per code, in the voucher error envelope', async () => {
    const conflict = (await documentFor('voucher')).paths['/api/v1/things/{id}'].get.responses['409'];
    expect(conflict['x-error-codes']).toEqual(['TEMPLATE_NOT_ACTIVE', 'ISSUE_LIMIT_REACHED']);
    expect(conflict.description).toBe('`TEMPLATE_NOT_ACTIVE`; `ISSUE_LIMIT_REACHED`: stock is gone');
    const media = conflict.content['application/json'];
    expect(media.schema.allOf[0]).toEqual({ $ref: '#/components/schemas/ErrorEnvelope' });
    expect(media.schema.allOf[1].properties.error.properties.code.enum).toEqual([
      'TEMPLATE_NOT_ACTIVE',
      'ISSUE_LIMIT_REACHED',
    ]);
    expect(media.examples.ISSUE_LIMIT_REACHED.value).toMatchObject({
      success: false,
      code: 409,
      error: { code: 'ISSUE_LIMIT_REACHED' },
    });
  });

  it('lists a code once when several causes share it, and keeps every cause in the description', async () => {
    const limited = (await documentFor('voucher')).paths['/api/v1/things/{id}'].get.responses['429'];
    expect(limited['x-error-codes']).toEqual(['RATE_LIMITED']);
    expect(limited.description).toBe('`RATE_LIMITED`: too many guesses; `RATE_LIMITED`: endpoint limit');
  });

  it('lists every error code with its statuses in the description the UI shows', async () => {
    const document = await documentFor('voucher');
    expect(document['x-error-codes']).toEqual(
      expect.arrayContaining([
        'CONFLICT',
        'ISSUE_LIMIT_REACHED',
        'NOT_FOUND',
        'RATE_LIMITED',
        'UNAUTHORIZED',
        'VALIDATION_FAILED',
      ]),
    );
    expect(document.info.description).toContain('## Error codes');
    expect(document.info.description).toContain('| `RATE_LIMITED` | 429 |');
    expect(document.info.description).toContain('in `error.code`');
  });

  it('puts the business code at the top level of the bot error envelope', async () => {
    const notFound = (await documentFor('bot')).paths['/api/v1/things/{id}'].get.responses['404'];
    expect(notFound.content['application/json'].schema.allOf[1].properties.code.enum).toEqual(['NOT_FOUND']);
    expect(notFound.content['application/json'].examples.NOT_FOUND.value).toEqual({
      success: false,
      code: 'NOT_FOUND',
      message: 'not found',
    });
  });

  it('wraps the documented payload in the success envelope and adds 400 and 401 where they can happen', async () => {
    const document = await documentFor('voucher');
    const get = document.paths['/api/v1/things/{id}'].get;
    expect(get.responses['200'].content['application/json'].schema).toEqual({
      allOf: [
        { $ref: '#/components/schemas/SuccessEnvelope' },
        { type: 'object', required: ['data'], properties: { data: { $ref: '#/components/schemas/TemplateView' } } },
      ],
    });
    expect(get.responses['400']['x-error-codes']).toEqual(['VALIDATION_FAILED']);
    expect(get.responses['401']['x-error-codes']).toEqual(['UNAUTHORIZED']);
    expect(document.components.securitySchemes[API_SECURITY.appToken]).toMatchObject({
      scheme: 'bearer',
      bearerFormat: 'sop_<base62>',
    });
  });

  it('documents 415 on every state-changing operation, which the JSON body check answers to a form (defect 5)', async () => {
    const paths = (await documentFor('bot')).paths;
    expect(paths['/api/v1/things/only-errors'].post.responses['415']).toMatchObject({
      description: expect.stringContaining('application/json'),
    });
  });

  it('keeps the success response of a route that documents only its errors, with the status Nest sends', async () => {
    const paths = (await documentFor('bot')).paths;
    expect(Object.keys(paths['/api/v1/things/only-errors'].post.responses)).toEqual(['201', '409', '415', '500', '503']);
    expect(Object.keys(paths['/api/v1/things/only-errors-200'].post.responses)).toEqual(['200', '409', '415', '500', '503']);
    expect(paths['/api/v1/things/only-errors-200'].post.responses['200'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/SuccessEnvelope',
    });
  });

  it('documents the scheme of the credential guard that runs, even where @ApiBearerAuth names another', async () => {
    const runtime = (await documentFor('voucher')).paths['/api/v1/things/runtime'].post;
    expect(runtime.security).toEqual([{ [API_SECURITY.appToken]: [] }]);
  });

  it('marks unguarded and @ApiPublic routes public, and leaves a guarded route without a scheme for the lint to reject', async () => {
    const paths = (await documentFor('bot')).paths;
    expect(paths['/api/v1/things/verify'].post.security).toEqual([]);
    expect(paths['/api/v1/things/declared-public'].post.security).toEqual([]);
    expect(paths['/api/v1/things/declared-public'].post['x-public']).toBeUndefined();
    expect(paths['/api/v1/things/forgot-docs'].post.security).toBeUndefined();
    expect(paths['/api/v1/things/{id}'].get.security).toEqual([{ [API_SECURITY.appToken]: [] }]);
  });
});
