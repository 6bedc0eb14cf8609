"""A small MLP policy over discrete actions."""

import torch
from torch import nn
from torch.distributions import Categorical


class Policy(nn.Module):
    def __init__(self, obs_dim, num_actions, hidden=32):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(obs_dim, hidden), nn.Tanh(), nn.Linear(hidden, num_actions))

    def forward(self, obs):
        return self.net(obs)

    @torch.no_grad()
    def act(self, obs):
        """Sample one action from the logits; return it with its log-probability."""
        dist = Categorical(logits=self.forward(obs))
        action = dist.sample()
        return action, dist.log_prob(action)

    def log_prob(self, obs, actions):
        return Categorical(logits=self.forward(obs)).log_prob(actions)
