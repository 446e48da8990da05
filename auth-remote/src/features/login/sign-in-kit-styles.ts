// The sign-in kit's stylesheet, of the kit's components /login draws and no others
// (docs/architecture.md#the-sign-in-kits-stylesheet): the kit's own per-component sheets, which
// together make its whole stylesheet (styles.layer.css, 339 KB), imported here in that sheet's
// order, so the rules kept cascade as before. Global, as the kit needs it, and in the kit's
// cascade layer: each sheet is in `amplify.base` or `amplify.components`, both inside
// `@layer amplify` (the whole sheet has every rule in `amplify` itself; the sublayers make the
// component rules win over the base rules, which they did anyway: none has a lower specificity),
// so every rule outside a layer (the shell's, this remote's CSS Modules) wins over the kit's, which
// keeps its base rules (the body's line height, fonts) from restyling the shell's pages. A module
// of imports rather than a .css file of @imports: the build does not minify CSS, so a stylesheet's
// comments would ship; these are gone from the built code.
//
// A sheet left out styles nothing on any screen or state of /login: `npm run bench:kit-screens`
// lists the sheets with a rule that matches an element of a captured screen. A kit component or
// screen not drawn before (social sign-in: divider.layer.css; TOTP set-up: copy.layer.css) needs
// its sheet here.

// The kit's design tokens (every --amplify-* custom property on :root, which the rules below
// read) and its base rules (font family, box sizing, `all: unset` on the kit's elements).
import '@aws-amplify/ui-react/styles/base.layer.css';
// Flex: the columns and rows of every screen.
import '@aws-amplify/ui-react/styles/flex.layer.css';
// Text: a field's error text, the confirmation and verification texts.
import '@aws-amplify/ui-react/styles/text.layer.css';
// Button: Sign In, Submit, Send code, Confirm, Verify (primary); Forgot your password?, Back to
// Sign In, Resend code, Skip (link); the show-password switch, the alert's dismiss button; their
// disabled, loading and error looks.
import '@aws-amplify/ui-react/styles/button.layer.css';
// Field messages: the error under the terms checkbox.
import '@aws-amplify/ui-react/styles/fieldMessages.layer.css';
// Heading: Reset Password and the confirmation and verification screens' titles.
import '@aws-amplify/ui-react/styles/heading.layer.css';
// Icon: the show-password eye, the alert's icons, the select's chevron, the checkbox's tick.
import '@aws-amplify/ui-react/styles/icon.layer.css';
// Input: every text and password input.
import '@aws-amplify/ui-react/styles/input.layer.css';
// Loader: a button's spinner while its request runs (Signing in, Sending).
import '@aws-amplify/ui-react/styles/loader.layer.css';
// Alert: an error of the service (Incorrect username or password.).
import '@aws-amplify/ui-react/styles/alert.layer.css';
// Authenticator: the kit's frame, router, form and footer, and the sign-up errors.
import '@aws-amplify/ui-react/styles/authenticator.layer.css';
// Checkbox, CheckboxField: "I agree with the Terms & Conditions" (authenticator-setup.tsx).
import '@aws-amplify/ui-react/styles/checkbox.layer.css';
import '@aws-amplify/ui-react/styles/checkboxField.layer.css';
// Dial-code select: the phone number's country code on Create Account.
import '@aws-amplify/ui-react/styles/dialCodeSelect.layer.css';
// Field, field group: every field's label and box; the show-password switch beside its input.
import '@aws-amplify/ui-react/styles/field.layer.css';
import '@aws-amplify/ui-react/styles/fieldGroup.layer.css';
// Fieldset: the radio group of Verify Contact.
import '@aws-amplify/ui-react/styles/fieldset.layer.css';
// PasswordField: Password, New Password, Confirm Password.
import '@aws-amplify/ui-react/styles/passwordField.layer.css';
// PhoneNumberField: Phone Number on Create Account.
import '@aws-amplify/ui-react/styles/phoneNumberField.layer.css';
// Radio, RadioGroup, RadioGroupField: the contact to verify on Verify Contact.
import '@aws-amplify/ui-react/styles/radio.layer.css';
import '@aws-amplify/ui-react/styles/radiogroup.layer.css';
import '@aws-amplify/ui-react/styles/radioGroupField.layer.css';
// Select, SelectField: the dial-code select.
import '@aws-amplify/ui-react/styles/select.layer.css';
import '@aws-amplify/ui-react/styles/selectField.layer.css';
// Tabs: Sign In / Create Account, when sign-up is on (`auth.signUpEnabled`).
import '@aws-amplify/ui-react/styles/tabs.layer.css';
// TextField: Email, Name, Code, Confirmation Code.
import '@aws-amplify/ui-react/styles/textField.layer.css';
// Visually hidden: the checkbox's native input, the show-password switch's spoken state, the
// radio group's legend.
import '@aws-amplify/ui-react/styles/visuallyHidden.layer.css';
