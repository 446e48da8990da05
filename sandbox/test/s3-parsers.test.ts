/**
 * The S3 emulator's own parsers (XML bodies and multipart forms) take hostile bodies without
 * crashing the sandbox or polluting its process: the sandbox runs @20minutes/s3rver 4, a fork of
 * s3rver on fast-xml-parser 5 and busboy 1 (s3rver 3.7 pulled fast-xml-parser 3, with a prototype
 * pollution and a regular-expression injection, and busboy/dicer 0.3, which one crafted form body
 * crashed). The XML bodies are sent with the operator's key, so they get past the front's signature
 * and policy check to the parser itself. Form bodies never reach s3rver: the sandbox does not
 * emulate browser-form uploads (src/s3.ts).
 */
import { jpegBytes } from '../../test-support/jpeg';
import type { Sandbox } from '../src/index';
import { passwordTokens, s3Endpoint, seedUser, startTestSandbox, stopTestSandbox } from './support/sandbox';
import { operatorFetch, operatorS3 } from './support/sign';
import { reservedMetadata } from './support/uploads';
import { DeleteObjectsCommand, PutObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';

let sandbox: Sandbox;
let bucketUrl: string;
beforeAll(async () => {
  sandbox = await startTestSandbox();
  bucketUrl = `http://localhost:${sandbox.ports.s3}/${sandbox.config.storage.bucket}`;
});
afterAll(() => stopTestSandbox(sandbox));

/** The sandbox's S3 still answers, and a real client's call still works. */
async function expectS3Alive(): Promise<void> {
  const list = await operatorS3(s3Endpoint(sandbox)).send(new ListObjectsV2Command({ Bucket: sandbox.config.storage.bucket, Prefix: 'public/' }));
  expect(list.$metadata.httpStatusCode).toBe(200);
}

describe('XML bodies', () => {
  it('a __proto__ element in a DeleteObjects body pollutes nothing and deletes nothing it was not asked to', async () => {
    const key = 'public/cedar-creek/parser-proto.jpg';
    const s3 = operatorS3(s3Endpoint(sandbox));
    // Under a slot the subscriber reserved, so the object-created function keeps it.
    const subscriber = seedUser('subscriber@trailsense.example');
    const { IdToken } = await passwordTokens(sandbox.config, subscriber.email, subscriber.password);
    const photo = jpegBytes(key);
    const ledger = await reservedMetadata(sandbox.config, IdToken, 'cedar-creek', photo);
    await s3.send(
      new PutObjectCommand({
        Bucket: sandbox.config.storage.bucket,
        Key: key,
        Body: photo,
        ContentType: 'image/jpg',
        Metadata: { ranchid: 'cedar-creek', ...ledger },
      }),
    );
    expect((await operatorFetch(`${bucketUrl}/${key}`, { method: 'HEAD' })).status).toBe(200);
    const body =
      '<?xml version="1.0" encoding="UTF-8"?><Delete><__proto__><polluted>yes</polluted><Quiet>true</Quiet></__proto__>' +
      '<constructor><prototype><polluted>yes</polluted></prototype></constructor><Object><Key>public/cedar-creek/not-there.jpg</Key></Object></Delete>';
    const res = await operatorFetch(`${bucketUrl}?delete`, { method: 'POST', headers: { 'content-type': 'application/xml' }, body });
    // fast-xml-parser 5 refuses the name; S3's word for a body it cannot take is MalformedXML.
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('<Code>MalformedXML</Code>');
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(({} as Record<string, unknown>)['Quiet']).toBeUndefined();
    // The object the body did not name is still there.
    const head = await operatorFetch(`${bucketUrl}/${key}`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    await s3.send(new DeleteObjectsCommand({ Bucket: sandbox.config.storage.bucket, Delete: { Objects: [{ Key: key }] } }));
    await expectS3Alive();
  });

  it('a DOCTYPE whose entity names are regular expressions is refused as MalformedXML, not evaluated', async () => {
    const entityName = '(a+)+$|.*';
    const body = `<?xml version="1.0"?><!DOCTYPE Delete [<!ENTITY ${entityName} "x">]>` + `<Delete><Object><Key>${'a'.repeat(5000)}!</Key></Object></Delete>`;
    const res = await operatorFetch(`${bucketUrl}?delete`, { method: 'POST', headers: { 'content-type': 'application/xml' }, body });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('<Code>MalformedXML</Code>');
    await expectS3Alive();
  });

  it('a CompleteMultipartUpload body that is not XML gets S3’s MalformedXML', async () => {
    const res = await operatorFetch(`${bucketUrl}/public/cedar-creek/parser-complete.jpg?uploadId=nope`, {
      method: 'POST',
      headers: { 'content-type': 'application/xml' },
      body: '<CompleteMultipartUpload><Part><PartNumber>1</Part>',
    });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('<Code>MalformedXML</Code>');
    await expectS3Alive();
  });
});

/** A form POST is answered 501 NotImplemented, whatever its body, and S3 answers on. */
async function expectFormRefused(res: Response): Promise<void> {
  expect(res.status).toBe(501);
  expect(await res.text()).toContain('<Code>NotImplemented</Code>');
  await expectS3Alive();
}

describe('multipart form bodies (browser-form uploads, not emulated)', () => {
  it('the form body that crashed busboy/dicer 0.3 (CVE-2022-24434) is refused and the sandbox lives on', async () => {
    const boundary = '----WebKitFormBoundaryoo6vortfDzBsDiro';
    // A header line that starts with a space (a continuation of no header) made dicer throw
    // outside any handler, which stops the process.
    const body = `--${boundary}\r\n Content-Disposition: form-data; name="bildbeschreibung"\r\n\r\n\r\n--${boundary}--`;
    await expectFormRefused(await operatorFetch(bucketUrl, { method: 'POST', headers: { 'content-type': `multipart/form-data; boundary=${boundary}` }, body }));
  });

  it('a form cut off mid-part (which makes s3rver 4 emit an unhandled busboy error) is refused and the sandbox lives on', async () => {
    const boundary = 'trailsense-boundary';
    const body = `--${boundary}\r\nContent-Disposition: form-data; name="key"\r\n\r\npublic/cedar-creek/x.jpg\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="x.jpg"\r\n\r\nabc`;
    await expectFormRefused(await operatorFetch(bucketUrl, { method: 'POST', headers: { 'content-type': `multipart/form-data; boundary=${boundary}` }, body }));
  });

  it('an unsigned form, as a page on another site could post it, is refused the same way', async () => {
    const body = '--b\r\nContent-Disposition: form-data; name="key"\r\n\r\npublic/cedar-creek/x.jpg\r\n--b--\r\n';
    await expectFormRefused(await fetch(bucketUrl, { method: 'POST', headers: { 'content-type': 'multipart/form-data; boundary=b' }, body }));
  });
});
