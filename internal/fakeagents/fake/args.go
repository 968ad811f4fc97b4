package fake

import "strings"

// ArgErrors is what a fake CLI says about bad arguments, in its real
// CLI's words.
type ArgErrors struct {
	TooMany      func(arg string) error       // a second positional
	MissingValue func(name string) error      // a flag that takes a value at the end
	Unknown      func(arg, name string) error // an option it does not know (name: arg before "=")
}

// ParseArgs parses args the way the option parsers of the Claude and
// Gemini CLIs agree on: "--name value" or "--name=value" (a short name
// only as "-n value"), "--" ends the options, and at most one positional,
// the prompt. flag is called for each option with a way to read its value;
// it reports whether it knows the name (an unknown one is an error).
func ParseArgs(args []string, e ArgErrors, flag func(name string, value func() (string, error)) (bool, error)) (prompt string, hasPrompt bool, err error) {
	positional := func(a string) error {
		if hasPrompt {
			return e.TooMany(a)
		}
		prompt, hasPrompt = a, true
		return nil
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, inline, hasInline := strings.Cut(a, "=")
		if !strings.HasPrefix(a, "--") {
			name, hasInline = a, false
		}
		value := func() (string, error) {
			if hasInline {
				return inline, nil
			}
			if i+1 >= len(args) {
				return "", e.MissingValue(name)
			}
			i++
			return args[i], nil
		}
		if name == "--" {
			for _, p := range args[i+1:] {
				if err := positional(p); err != nil {
					return prompt, hasPrompt, err
				}
			}
			return prompt, hasPrompt, nil
		}
		known, err := flag(name, value)
		switch {
		case err != nil:
			return prompt, hasPrompt, err
		case known:
		case strings.HasPrefix(a, "-") && a != "-":
			return prompt, hasPrompt, e.Unknown(a, name)
		default:
			if err := positional(a); err != nil {
				return prompt, hasPrompt, err
			}
		}
	}
	return prompt, hasPrompt, nil
}

// PrintHistory shows the messages of a resumed conversation, each after
// the mark of its role.
func (s *Screen) PrintHistory(msgs []Message, userMark, replyMark string) {
	for _, m := range msgs {
		if m.Role == "user" {
			s.Printf("%s %s\n", userMark, m.Text)
		} else {
			s.Printf("%s %s\n", replyMark, m.Text)
		}
	}
}
