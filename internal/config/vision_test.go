package config

import (
	"testing"

	"github.com/dormouse-dev/dormouse/internal/llm"
)

// TestVisionSupportAgreesWithTheClient: the configuration refuses llm.vision exactly where the model
// client would refuse to send an image.
func TestVisionSupportAgreesWithTheClient(t *testing.T) {
	for _, tc := range []struct{ provider, model string }{
		{"ollama", "llava"}, {"ollama", ""}, {"openai", "gpt-4o-mini"}, {"anthropic", ""}, {"googleai", "gemini-2.0-flash"},
		{"bedrock", ""}, {"bedrock", "anthropic.claude-3-5-sonnet-20240620-v1:0"},
		{"bedrock", "us.anthropic.claude-3-5-sonnet-20241022-v2:0"}, {"bedrock", "amazon.titan-text-express-v1"},
		{"bedrock", "meta.llama3-2-11b-instruct-v1:0"}, {"bedrock", "amazon.nova-lite-v1:0"},
		{"bedrock", "us.amazon.nova-pro-v1:0"}, {"bedrock", "cohere.command-r-v1:0"}, {"bedrock", "ai21.jamba-instruct-v1:0"},
	} {
		cfgSays := visionSupport(tc.provider, tc.model) == ""
		clientSays := llm.VisionSupport(tc.provider, tc.model) == nil
		if cfgSays != clientSays {
			t.Errorf("%s %q: configuration says %v, client %v", tc.provider, tc.model, cfgSays, clientSays)
		}
	}
	if visionSupport("offline", "") == "" {
		t.Error("offline accepted for vision")
	}
}

func TestVisionSettings(t *testing.T) {
	c, err := Load(Options{Path: writeFile(t, "llm:\n  provider: ollama\n  model: llama3.2\n  vision: true\n  vision_model: llava\n")})
	if err != nil {
		t.Fatal(err)
	}
	if !c.LLM.Vision || c.LLM.VisionModel != "llava" {
		t.Errorf("llm = %+v", c.LLM)
	}
	if Default().LLM.Vision {
		t.Error("vision is on by default")
	}
}
