import { faq } from '../src/content/faq';
import { setupTips } from '../src/content/setup-tips';
import { howItWorks, photoDetails, startSteps, tools } from '../src/content/home';

/** Markup in an answer would show up as literal tags in the FAQPage JSON-LD. */
const markup = /<[a-z/!]|&[a-z#0-9]+;/i;

describe('faq', () => {
  it('answers the three questions docs/product.md#marketing-pages requires: cameras, upload limit, upload speed', () => {
    const answers = faq.map((entry) => entry.answer);
    expect(answers).toContainEqual(expect.stringMatching(/cameras per account depends on .*locations.* subscription/));
    expect(answers).toContainEqual(expect.stringMatching(/upload limit depends on your subscription/));
    expect(answers).toContainEqual(expect.stringMatching(/upload speed depends on your internet/i));
  });

  it('says accounts are created in the mobile app', () => {
    const entry = faq.find((e) => /create an account/i.test(e.question));
    expect(entry?.answer).toMatch(/created in our mobile app/);
  });

  it('has unique, non-empty questions', () => {
    const questions = faq.map((entry) => entry.question.trim());
    expect(questions.every((q) => q.length > 0)).toBe(true);
    expect(new Set(questions).size).toBe(questions.length);
  });

  it('keeps answers plain text, without markup', () => {
    for (const entry of faq) {
      expect(entry.answer).not.toMatch(markup);
      expect(entry.question).not.toMatch(markup);
    }
  });
});

describe('setupTips', () => {
  it('has exactly seven tips', () => {
    expect(setupTips).toHaveLength(7);
  });

  it('gives each tip a unique title and a body', () => {
    expect(new Set(setupTips.map((tip) => tip.title)).size).toBe(7);
    expect(setupTips.every((tip) => tip.body.length > 0)).toBe(true);
  });
});

describe('home content', () => {
  it('has exactly six start steps, beginning with the app download', () => {
    expect(startSteps).toHaveLength(6);
    expect(startSteps[0]?.title).toMatch(/download the app/i);
  });

  it('covers bucks, does, hogs, date, time, location, weather and moon phase', () => {
    const text = photoDetails
      .map((d) => `${d.title} ${d.body}`)
      .join(' ')
      .toLowerCase();
    for (const word of ['bucks', 'does', 'hogs', 'date', 'time', 'location', 'weather', 'moon phase']) {
      expect(text).toContain(word);
    }
  });

  it('presents Analyze and Predict', () => {
    expect(tools.map((tool) => tool.name)).toEqual(['Analyze', 'Predict']);
    expect(howItWorks.length).toBeGreaterThan(0);
  });
});
