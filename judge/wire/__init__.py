"""The frames between the judge and the untrusted child: the protocol, the strict observation
codec, tensors as raw bytes.
"""
