import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { BotsModule } from '../bots/bots.module';
import { BotConfig } from '../config/bot.config';
import { BotFilesController } from './bot-files.controller';
import { ClientFilesController } from './client-files.controller';
import { StoredFile } from './entities/file.entity';
import { FileLinksService } from './file-links.service';
import { FileStorageController } from './file-storage.controller';
import { FileTransferService } from './file-transfer.service';
import { FileRetentionPurgeService } from './file-retention-purge.service';
import { FileUploadPurgeService } from './file-upload-purge.service';
import { FileUploadsService } from './file-uploads.service';
import { FileUploadsStore } from './file-uploads.store';
import { FilesService } from './files.service';
import { FilesStore } from './files.store';
import { DiskFileStorage } from './storage/disk-file-storage';
import { FileStorage } from './storage/file-storage';
import { S3FileStorage } from './storage/s3-file-storage';

/** The storage driver FILE_STORAGE_DRIVER names, built from its variables. */
export function fileStorageFor(config: BotConfig): FileStorage {
  if (config.FILE_STORAGE_DRIVER === 's3') {
    return new S3FileStorage({
      endpoint: config.FILE_S3_ENDPOINT,
      bucket: config.FILE_S3_BUCKET,
      region: config.FILE_S3_REGION,
      accessKeyId: config.FILE_S3_ACCESS_KEY_ID,
      secretAccessKey: config.FILE_S3_SECRET_ACCESS_KEY,
      forcePathStyle: config.FILE_S3_FORCE_PATH_STYLE,
    });
  }
  return new DiskFileStorage({
    directory: config.FILE_STORAGE_DIR,
    publicBaseUrl: config.FILE_PUBLIC_BASE_URL,
    signingKey: config.FILE_URL_SIGNING_KEY,
  });
}

@Module({
  imports: [TypeOrmModule.forFeature([StoredFile]), BotsModule],
  controllers: [BotFilesController, ClientFilesController, FileStorageController],
  providers: [
    { provide: FileStorage, useFactory: fileStorageFor, inject: [BotConfig] },
    FilesStore,
    FilesService,
    FileUploadsStore,
    FileUploadsService,
    FileLinksService,
    FileTransferService,
    FileUploadPurgeService,
    FileRetentionPurgeService,
  ],
  exports: [FilesStore, FilesService, FileLinksService, FileUploadsService, TypeOrmModule],
})
export class FilesModule {}
