"""The model object's own API: calls on a module that set it up or move it, never run its forward.

``model.apply(fn)``, ``model.to(dtype)``, ``model.eval()``, ``model.named_parameters()`` are
calls on the same object a trainer runs for log-probs, so a body test that keys on "a call on
the model" must leave them out: a loader that enables gradient checkpointing through
``self.apply(...)`` is no forward pass (torch ``nn.Module`` and transformers/peft model methods).
"""

from __future__ import annotations

_PLUMBING = frozenset({
    # torch.nn.Module
    "apply", "to", "to_empty", "cuda", "cpu", "half", "float", "double", "bfloat16", "type", "eval", "train",
    "requires_grad_", "zero_grad", "share_memory", "parameters", "buffers", "children", "modules",
    "state_dict", "load_state_dict", "add_module", "get_submodule", "get_parameter", "get_buffer",
    "extra_repr",
    # transformers PreTrainedModel / peft
    "enable_input_require_grads", "gradient_checkpointing_enable", "gradient_checkpointing_disable",
    "save_pretrained", "push_to_hub", "resize_token_embeddings", "get_input_embeddings", "set_input_embeddings",
    "get_output_embeddings", "set_output_embeddings", "tie_weights", "num_parameters", "get_decoder",
    "set_adapter", "load_adapter", "add_adapter", "delete_adapter", "merge_and_unload", "unload",
    "disable_adapter", "enable_adapters", "disable_adapters", "print_trainable_parameters",
    "get_nb_trainable_parameters",
})
_PREFIXES = ("named_", "register_", "_set_")


def module_plumbing(method: str) -> bool:
    """``method`` is a module API call that configures, casts, inspects or saves the model."""
    return method in _PLUMBING or method.startswith(_PREFIXES)
