"""An LLM agent for the harness through a user-configured OpenAI-compatible endpoint (optional, never required).

Off by default (`llm_agent.enabled: false`). The endpoint's base URL and model come from the config, the key from the
environment variable named there (never written anywhere). Each step sends the observation text and the tool list and
expects one JSON action back, e.g. {"tool": "search", "query": "..."}; an unparsable reply becomes a harmless review.
"""

from __future__ import annotations

import json
import os
import urllib.request

from neurips26.common.pipeline.errors import UserError

SYSTEM = ("You answer a question about a long document through tools. Reply with ONE JSON object and nothing else: "
          '{"tool": "search", "query": str} | {"tool": "read", "ids": [block ids]} | '
          '{"tool": "note", "slot": int, "value": str, "block": block id} | {"tool": "review"} | '
          '{"tool": "answer", "text": str}. Notes must quote a value from the cited block. Answer "Not answerable" when '
          "the document does not contain the answer.")


class LLMAgent:
    def __init__(self, base_url: str, model: str, key_env: str, timeout: float = 60.0):
        self.key = os.environ.get(key_env)
        if not self.key:
            raise UserError(f"llm_agent.enabled needs the API key in the environment variable {key_env}")
        self.url, self.model, self.timeout = base_url.rstrip("/") + "/chat/completions", model, timeout

    def reset(self) -> None:
        pass

    def _complete(self, prompt: str) -> str:
        body = json.dumps({"model": self.model, "temperature": 0,
                           "messages": [{"role": "system", "content": SYSTEM}, {"role": "user", "content": prompt}]})
        request = urllib.request.Request(self.url, body.encode(), {"Content-Type": "application/json",
                                                                   "Authorization": f"Bearer {self.key}"})
        with urllib.request.urlopen(request, timeout=self.timeout) as response:  # noqa: S310 (user-configured URL)
            return json.loads(response.read())["choices"][0]["message"]["content"]

    def act(self, obs: dict) -> dict:
        reply = self._complete(f"Tools: {', '.join(obs['tools'])}. Step {obs['steps']} of {obs['max_steps']}.\n"
                               f"{obs['text']}")
        return parse_action(reply)


def parse_action(reply: str) -> dict:
    """The first JSON object in the reply with a string "tool"; else a review (costs a step, changes nothing)."""
    decoder = json.JSONDecoder()
    for start in (i for i, ch in enumerate(reply) if ch == "{"):
        try:
            action, _ = decoder.raw_decode(reply, start)
        except json.JSONDecodeError:
            continue
        if isinstance(action, dict) and isinstance(action.get("tool"), str):
            return action
    return {"tool": "review"}
