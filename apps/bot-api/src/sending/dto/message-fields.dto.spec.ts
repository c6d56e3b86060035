import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { CAPTION_MARKUP_MAX } from '../../messages/dto/client-messages.dto';
import { EditMessageCaptionDto, InputMediaEditDto } from './edit.dto';
import {
  InputMediaDto,
  SendAnimationDto,
  SendAudioDto,
  SendDocumentDto,
  SendPhotoDto,
  SendVideoDto,
  SendVideoNoteDto,
  SendVoiceDto,
} from './send.dto';

/** Every body that carries a caption, with the fields it needs besides. */
const CAPTIONED = [
  ...[SendPhotoDto, SendDocumentDto, SendVideoDto, SendVideoNoteDto, SendAnimationDto, SendAudioDto, SendVoiceDto].map(
    (type) => ({ type, base: { chat_id: 'c1', file_id: 'f1' } }),
  ),
  { type: InputMediaDto, base: { type: 'photo', file_id: 'f1' } },
  { type: InputMediaEditDto, base: { type: 'animation', file_id: 'f1' } },
  { type: EditMessageCaptionDto, base: { message_id: 1 } },
];

async function problems(type: new () => object, body: object): Promise<Record<string, string[]>> {
  const errors = await validate(plainToInstance(type, body), { whitelist: true, forbidNonWhitelisted: true });
  return Object.fromEntries(errors.map((error) => [error.property, Object.keys(error.constraints ?? {})]));
}

describe('the caption block of sends and edits', () => {
  it.each(CAPTIONED.map((entry) => [entry.type.name, entry] as const))(
    '%s takes a caption, its parse_mode and caption_entities with the same limits',
    async (_name, { type, base }) => {
      const caption = 'c'.repeat(CAPTION_MARKUP_MAX);
      const entities = [{ type: 'bold', offset: 0, length: 1 }];
      expect(await problems(type, { ...base, caption, parse_mode: 'HTML', caption_entities: entities })).toEqual({});
      expect(
        await problems(type, { ...base, caption: `${caption}c`, parse_mode: 'BBCode', caption_entities: [{}] }),
      ).toEqual({
        caption: ['maxLength'],
        parse_mode: ['isIn'],
        caption_entities: [],
      });
    },
  );
});
