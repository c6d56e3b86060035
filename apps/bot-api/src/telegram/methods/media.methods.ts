import { Injectable, type Type } from '@nestjs/common';
import { TelegramObject } from '@app/telegram-shapes';
import type { Bot } from '../../bots/entities/bot.entity';
import { UploadCredentialsDto } from '../../files/dto/upload.dto';
import { FileUploadsService } from '../../files/file-uploads.service';
import { MessageKind } from '../../messages/entities/message.entity';
import {
  SendAnimationDto,
  SendAudioDto,
  SendDocumentDto,
  SendMediaGroupDto,
  SendPhotoDto,
  SendStickerDto,
  SendVideoDto,
  SendVideoNoteDto,
  SendVoiceDto,
} from '../../sending/dto/send.dto';
import { EditMessageMediaDto } from '../../sending/dto/edit.dto';
import { MessageEditsService } from '../../sending/message-edits.service';
import { FileSend, SendingService } from '../../sending/sending.service';
import { TelegramIdsService } from '../telegram-ids.service';
import { nativeDto } from '../native-dto';
import type { InputFileRef } from '../telegram-args';
import type { TelegramCall, TelegramMethod, TelegramMethodGroup } from '../telegram-call';
import { TelegramError, TELEGRAM_TEXTS } from '../telegram-errors';
import { editedReplyMarkupOf, formatting, formattingOf, TelegramSends } from '../telegram-sends';
import { mimeTypeOf } from './mime-types';

interface MediaMethod {
  /** The parameter that carries the InputFile, which is also the Telegram method's noun. */
  field: string;
  kind: MessageKind;
  dto: Type<FileSend>;
  /** Optional media facts the method takes, passed as given. */
  ints: string[];
  strings: string[];
}

const MEDIA_METHODS: Record<string, MediaMethod> = {
  sendPhoto: { field: 'photo', kind: 'photo', dto: SendPhotoDto, ints: [], strings: ['caption'] },
  sendDocument: { field: 'document', kind: 'document', dto: SendDocumentDto, ints: [], strings: ['caption'] },
  sendVideo: {
    field: 'video',
    kind: 'video',
    dto: SendVideoDto,
    ints: ['width', 'height', 'duration'],
    strings: ['caption'],
  },
  sendAnimation: {
    field: 'animation',
    kind: 'animation',
    dto: SendAnimationDto,
    ints: ['width', 'height', 'duration'],
    strings: ['caption'],
  },
  sendVideoNote: { field: 'video_note', kind: 'video_note', dto: SendVideoNoteDto, ints: ['duration'], strings: [] },
  sendAudio: {
    field: 'audio',
    kind: 'audio',
    dto: SendAudioDto,
    ints: ['duration'],
    strings: ['caption', 'performer', 'title'],
  },
  sendVoice: { field: 'voice', kind: 'voice', dto: SendVoiceDto, ints: ['duration'], strings: ['caption'] },
  sendSticker: { field: 'sticker', kind: 'sticker', dto: SendStickerDto, ints: [], strings: [] },
};

/** File sends with InputFile uploads (multipart) or file_ids, media groups and getFile. */
@Injectable()
export class MediaMethods implements TelegramMethodGroup {
  constructor(
    private readonly sending: SendingService,
    private readonly edits: MessageEditsService,
    private readonly uploads: FileUploadsService,
    private readonly sends: TelegramSends,
    private readonly ids: TelegramIdsService,
  ) {}

  methods(): Record<string, TelegramMethod> {
    const sends = Object.fromEntries(
      Object.entries(MEDIA_METHODS).map(([name, method]) => [
        name,
        (call: TelegramCall) => this.sendMedia(method, call),
      ]),
    );
    return {
      ...sends,
      sendMediaGroup: (call) => this.sendMediaGroup(call),
      editMessageMedia: (call) => this.editMessageMedia(call),
      getFile: (call) => this.getFile(call),
    };
  }

  private async sendMedia(method: MediaMethod, { bot, args }: TelegramCall): Promise<TelegramObject> {
    await this.sends.admit(bot);
    const target = await this.sends.target(args);
    const input = args.inputFile(method.field);
    if (!input) throw TelegramError.badRequest(`there is no ${method.field} in the request`);
    const own = Object.fromEntries([
      ...method.ints.map((name) => [name, args.int(name)]),
      ...method.strings.map((name) => [name, args.string(name)]),
      ...(method.strings.includes('caption') ? Object.entries(formattingOf(args, 'caption_entities')) : []),
    ]);
    // Checked before anything is stored, so a refused call leaves no file behind.
    await nativeDto(method.dto, { ...target, ...own, file_id: '00000000-0000-4000-8000-000000000000' });
    if ('upload' in input) await this.sending.assertWritable(bot, target.chat_id);
    const dto = await nativeDto(method.dto, { ...target, ...own, file_id: await this.fileIdOf(bot, input) });
    return this.sends.message(await this.sending.sendFile(bot, method.kind, dto));
  }

  /** Telegram's InputMedia items: `media` is a file_id or an `attach://` part. Costs one send per item. */
  private async sendMediaGroup({ bot, args }: TelegramCall): Promise<TelegramObject[]> {
    const media = args.json('media', 'media JSON array');
    if (!Array.isArray(media)) throw TelegramError.badRequest('media must be an array of InputMedia');
    await this.sends.admit(bot, Math.min(Math.max(media.length, 1), 10));
    const target = await this.sends.target(args);
    const items = media.map((item: unknown, index) => {
      const fields = (item ?? {}) as Record<string, unknown>;
      if (typeof fields.media !== 'string') throw TelegramError.badRequest(`media[${index}].media must be a string`);
      const formatting = mediaFormatting(fields);
      return {
        type: fields.type,
        caption: fields.caption,
        formatting,
        ref: args.fileRef(fields.media, `media[${index}]`),
      };
    });
    const placeholder = '00000000-0000-4000-8000-000000000000';
    const check = (ids: string[]) =>
      nativeDto(SendMediaGroupDto, {
        ...target,
        media: items.map((item, index) => ({
          type: item.type,
          caption: item.caption,
          ...item.formatting,
          file_id: ids[index],
        })),
      });
    await check(items.map(() => placeholder));
    if (items.some((item) => 'upload' in item.ref)) await this.sending.assertWritable(bot, target.chat_id);
    const ids: string[] = [];
    for (const item of items) ids.push(await this.fileIdOf(bot, item.ref));
    return this.sends.messages(await this.sending.sendMediaGroup(bot, await check(ids)));
  }

  /** InputMedia as Telegram takes it: `media` is a file_id or an `attach://` part, which is stored first. */
  private async editMessageMedia({ bot, args }: TelegramCall): Promise<TelegramObject> {
    this.sends.requireSendScope(bot);
    if (args.has('inline_message_id')) {
      throw new TelegramError(400, TELEGRAM_TEXTS.inlineMessageNotEditable);
    }
    const media = args.json('media', 'InputMedia JSON object');
    if (typeof media !== 'object' || media === null || Array.isArray(media))
      throw TelegramError.badRequest("can't parse InputMedia JSON object");
    const fields = media as Record<string, unknown>;
    if (typeof fields.media !== 'string') throw TelegramError.badRequest('media.media must be a string');
    const ref = args.fileRef(fields.media, 'media');
    const refs = {
      chat_id: await this.ids.chatOf(args.chat()),
      message_id: args.requiredInt('message_id'),
      reply_markup: editedReplyMarkupOf(args),
    };
    const item = { type: fields.type, caption: fields.caption, ...mediaFormatting(fields) };
    const placeholder = '00000000-0000-4000-8000-000000000000';
    // Checked before anything is stored, so a refused call leaves no file behind.
    await nativeDto(EditMessageMediaDto, { ...refs, media: { ...item, file_id: placeholder } });
    const dto = await nativeDto(EditMessageMediaDto, {
      ...refs,
      media: { ...item, file_id: await this.fileIdOf(bot, ref) },
    });
    return this.sends.message(await this.edits.editMessageMedia(bot, dto));
  }

  private async getFile({ bot, args }: TelegramCall): Promise<TelegramObject> {
    const info = await this.uploads.getFile(bot, args.requiredString('file_id'));
    return {
      file_id: info.file_id,
      file_unique_id: info.file_id.replace(/-/g, ''),
      file_size: info.file_size,
      file_path: telegramFilePath(info.file_id, info.file_name),
    };
  }

  /** An uploaded part becomes a file of the bot through the storage driver, with the upload rules. */
  private async fileIdOf(bot: Bot, input: InputFileRef): Promise<string> {
    if ('fileId' in input) return input.fileId;
    const part = input.upload;
    const declaration = await nativeDto(UploadCredentialsDto, {
      fileName: part.fileName,
      fileSize: part.bytes.length,
      fileType: mimeTypeOf(part.mimeType, part.fileName),
    });
    const file = await this.uploads.storeBytes({ kind: 'bot', botId: bot.id }, declaration, part.bytes);
    return file.id;
  }
}

/** An InputMedia's caption_entities, or its parse_mode. */
function mediaFormatting(fields: Record<string, unknown>): Record<string, unknown> {
  return formatting(fields.caption_entities, fields.parse_mode, 'caption_entities');
}

/** `<file_id>/<file name>`: what getFile gives and the download route reads back. */
export function telegramFilePath(fileId: string, fileName: string): string {
  return `${fileId}/${encodeURIComponent(fileName)}`;
}

/** The file_id of a file_path, or null when it has none. */
export function fileIdOfPath(path: string): string | null {
  const [fileId] = path.split('/');
  return fileId && /^[0-9a-f-]{36}$/i.test(fileId) ? fileId : null;
}
