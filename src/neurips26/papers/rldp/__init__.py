"""RLDP + AdaSwitch: difficulty read from hidden states before reasoning, reasoning effort switched by it."""
