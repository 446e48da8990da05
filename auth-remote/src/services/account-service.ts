import { updatePassword, updateUserAttributes } from 'aws-amplify/auth';

/** Profile calls the screens make; injected so component tests run with fakes, not a mocked Amplify. */
export interface AccountService {
  /** Updates the given attributes (saved at once: the pool does not hold changes for verification). */
  updateAttributes(attributes: Record<string, string>): Promise<void>;
  changePassword(oldPassword: string, newPassword: string): Promise<void>;
}

export const amplifyAccountService: AccountService = {
  async updateAttributes(attributes) {
    await updateUserAttributes({ userAttributes: attributes });
  },
  async changePassword(oldPassword, newPassword) {
    await updatePassword({ oldPassword, newPassword });
  },
};
