"""A toy environment: walk a ring of states; the reward is 1 when the action hits the target."""

import random


class RingEnv:
    """Observation: one-hot of the current state. Action: an index in [0, num_actions).

    The target action of state s is (3 * s + 1) % num_actions; after each action the state
    moves forward by that action. An episode lasts `episode_len` steps.
    """

    def __init__(self, num_states, num_actions, episode_len, seed=0):
        self.num_states = num_states
        self.num_actions = num_actions
        self.episode_len = episode_len
        self.rng = random.Random(seed)
        self.state = 0
        self.t = 0

    def observe(self):
        obs = [0.0] * self.num_states
        obs[self.state] = 1.0
        return obs

    def reset(self, start_state=None):
        self.state = self.rng.randrange(self.num_states) if start_state is None else start_state
        self.t = 0
        return self.observe()

    def target(self, state):
        return (3 * state + 1) % self.num_actions

    def step(self, action):
        reward = 1.0 if action == self.target(self.state) else 0.0
        self.state = (self.state + action + 1) % self.num_states
        self.t += 1
        done = self.t >= self.episode_len
        return self.observe(), reward, done
